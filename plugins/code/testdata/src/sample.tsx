import React from "react";

interface Props {
  title: string;
}

export function Card({ title }: Props) {
  return <div className="card">{title}</div>;
}

export const Badge = ({ title }: Props) => <span>{title}</span>;

export class Panel extends React.Component<Props> {
  render() {
    return <section>{this.props.title}</section>;
  }
}
